// Tables owned by the log module. Add one property per table: name -> row interface.
// biome-ignore lint/complexity/noBannedTypes: filled in by the owning module
export type LogTables = {};
