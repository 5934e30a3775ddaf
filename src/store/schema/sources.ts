// Tables owned by the sources module (catalog import: governments, sources, retirements).
// biome-ignore lint/complexity/noBannedTypes: filled in by the owning module
export type SourcesTables = {};
