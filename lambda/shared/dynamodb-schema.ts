/**
 * The Person table's layout, shared by the store that reads and writes it and the CDK
 * construct that creates it (lib/targets/dynamodb.ts), so the two cannot drift apart.
 */
export { CREATED_AT } from './person';

/** The partition key. */
export const PERSON_KEY = 'GovId';
/**
 * The query's index: partition GovIdType, sort CreatedAt (epoch ms, a number), every attribute
 * projected so one Query answers without reading the table. Index names are scoped to their
 * table, so a fixed name is not a physical name that could collide.
 */
export const BY_TYPE_INDEX = 'ByGovIdTypeCreatedAt';
export const BY_TYPE_PARTITION = 'GovIdType';
