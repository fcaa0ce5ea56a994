/**
 * The Person table's layout, shared by the store that reads and writes it and the CDK
 * construct that creates it (targets/dynamodb/cdk.ts), so the two cannot drift apart.
 */
import type { Operation } from '../../core/lab-functions';

export { CREATED_AT } from '../../lambda/shared/person';

/** The partition key. */
export const PERSON_KEY = 'GovId';
/**
 * The query's index: partition GovIdType, sort CreatedAt (epoch ms, a number), every attribute
 * projected so one Query answers without reading the table. Index names are scoped to their
 * table, so a fixed name is not a physical name that could collide.
 */
export const BY_TYPE_INDEX = 'ByGovIdTypeCreatedAt';
export const BY_TYPE_PARTITION = 'GovIdType';

/**
 * The top 10's index (news-top10), as the article's: partition Section, sort the view count.
 * Sparse: only an item a view has stamped with Section and Views is in it, so the top 10 reads
 * the viewed stories and never the rest of the table. Every story shares the one Section value,
 * so the index has one partition key (the article's section "World" was one too).
 */
export const TOP_STORIES_INDEX = 'TopStories';
export const SECTION = 'Section';
export const SECTION_VALUE = 'news';
export const VIEWS = 'Views';

/** The index each reading-by-index operation may query; the others act on the table. */
export const INDEX_OF: Readonly<Partial<Record<Operation, string>>> = {
  query: BY_TYPE_INDEX,
  top10: TOP_STORIES_INDEX,
};
