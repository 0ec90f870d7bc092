// Column types every part of the schema shares (store/schema.ts and its parts by concern).

/** Booleans are stored as 0/1 in every dialect so one set of queries serves SQLite and PostgreSQL. */
export type Flag = number;
