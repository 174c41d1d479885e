// Each collection's record as the mock stores it, named for the API document: the bodies and answers of the records
// API (/__admin/data, docs/data.md). The schemas are TenantData's own, under a component name per collection.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { TenantData } from './tenant-data.js';

/** The collections of a tenant's data whose records have an id: what the records API serves. */
export type RecordCollectionName = {
  [K in keyof TenantData]: TenantData[K] extends Array<infer R> ? (R extends { id: string } ? K : never) : never;
}[keyof TenantData];
/** A record of that collection, as its schema declares it. */
export type RecordOf<K extends RecordCollectionName> = TenantData[K] extends Array<infer R> ? R : never;

const pascal = (name: string) => name[0]!.toUpperCase() + name.slice(1);

function itemSchema(schema: TSchema): TObject | undefined {
  return schema.type === 'array' ? (schema.items as TObject) : undefined;
}

/** Each record collection's schema with its component name (`users` → `UsersRecord`), in name order. */
export const storedRecords = Object.entries(TenantData.properties)
  .flatMap(([name, schema]) => {
    const item = itemSchema(schema as TSchema);
    return item?.properties?.id === undefined ? [] : [{ name: name as RecordCollectionName, item }];
  })
  .sort((a, b) => (a.name < b.name ? -1 : 1))
  .map(({ name, item }) => ({
    name,
    pascalName: pascal(name),
    schema: Type.Object(item.properties, {
      $id: `${pascal(name)}Record`,
      description: `a record of the collection ${name}, as the mock stores it`,
    }),
    /** the same record without its $id: what a handler checks a whole record against */
    plain: item,
  }));

export type StoredRecord = (typeof storedRecords)[number];
