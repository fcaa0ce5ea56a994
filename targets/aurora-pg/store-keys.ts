/** The raw keys the local lab's resume notice adds to a response's timing block (store.ts records, cost.ts reads). */
export const RESUMES = 'aurorapg.resumes';
export const RESUME_MS = 'aurorapg.resumeMs';
