/**
 * Adds `value` to the list kept under `key`, creating it on first use. In place: building a group
 * by copying it for every member is quadratic in the largest group (a name with thousands of records).
 */
export function addToGroup<K, V>(groups: Map<K, V[]>, key: K, value: V): void {
  const group = groups.get(key);
  if (group) group.push(value);
  else groups.set(key, [value]);
}

/** The items by `key`, each group in the items' order, the groups in the order their first item came. */
export function groupBy<K, V>(items: Iterable<V>, key: (item: V) => K): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) addToGroup(groups, key(item), item);
  return groups;
}
