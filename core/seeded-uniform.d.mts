/** Types of seeded-uniform.mjs. */
export function seededUniform(seed: number): () => number;
