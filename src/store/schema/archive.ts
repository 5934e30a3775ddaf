// Tables owned by the archive module. Add one property per table: name -> row interface.
// biome-ignore lint/complexity/noBannedTypes: filled in by the owning module
export type ArchiveTables = {};
