/**
 * The raw keys the local lab's resume notice adds to a response's timing block (store.ts records,
 * cost.ts reads): a call that waited for a resume, and how long it waited (the whole resume, or
 * the rest of one already under way).
 */
export const RESUMES = 'aurorapg.resumes';
export const RESUME_MS = 'aurorapg.resumeMs';
