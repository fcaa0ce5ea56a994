/** Local engines accept any credentials; fixed ones keep the SDK from searching the environment. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';
