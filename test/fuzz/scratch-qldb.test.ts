import { describeQldbFuzz } from './qldb-fuzz';
describeQldbFuzz({ seed: Number(process.env.S ?? 1), numRuns: Number(process.env.N ?? 300), tier: 'scratch' }, { maxDepth: 3 });
