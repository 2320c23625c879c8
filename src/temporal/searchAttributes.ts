import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes operators filter workflows by (docs/operations.md, The codec server). */
export const OrgIdKey = defineSearchAttributeKey('OrgId', SearchAttributeType.KEYWORD);
export const DomainKey = defineSearchAttributeKey('Domain', SearchAttributeType.KEYWORD);
export const LivemodeKey = defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL);
export const OperationTypeKey = defineSearchAttributeKey('OperationType', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [OrgIdKey, DomainKey, LivemodeKey, OperationTypeKey];

/** `Name=Type` pairs as `temporal server start-dev --search-attribute` takes them. */
export function searchAttributeCliArgs(): string[] {
  const cliType: Record<string, string> = { KEYWORD: 'Keyword', BOOL: 'Bool' };
  return SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${cliType[key.type]}`]);
}
