/**
 * The validated catalog, as the rest of the program sees it (the YAML format and its zod
 * schema live beside this file). Contract shared by sources, night and web.
 */
import type { RecordKind } from "../record.js";

export type GovernmentKind =
  | "county"
  | "city"
  | "village"
  | "township"
  | "school-district"
  | "special-district"
  | "state-agency"
  | "other";

export interface Government {
  id: string;
  name: string;
  kind: GovernmentKind;
  county?: string;
  website?: string;
  /**
   * IANA zone the government's pages write their times in (`America/Chicago`); absent means
   * America/New_York. A time a page writes without a zone is read here.
   */
  timezone?: string;
  /** Where the entry was seen (public material); kept for the operator. */
  evidence?: string;
  notes?: string;
}

/** A page recipe of CSS selectors (P6: records come from the list itself). */
export interface PageRecipe {
  items: string;
  title?: string;
  date?: string;
  link?: string;
  id?: string;
  kind?: string;
  /** The link to the older page (P7 backfill). */
  next?: string;
}

export type Access = "api" | "download" | "feed" | "page" | "form";

/** One way into a source's records. */
export interface WayIn {
  access: Access;
  url: string;
  platform?: string;
  extract?: PageRecipe;
  /** api: field paths; form: fields and pager. Shape owned by the adapter. */
  api?: Record<string, unknown>;
  form?: Record<string, unknown>;
  /** download: column mapping (schema.ts `downloadSpec`). */
  download?: Record<string, unknown>;
  /**
   * The source's government's `timezone`, filled in by the loader (never written on a way):
   * the readers read zone-less times there. Absent means America/New_York.
   */
  timezone?: string;
}

export interface Source extends WayIn {
  id: string;
  government: string;
  records: RecordKind;
  /** Other ways in, tried best first (P4). */
  alternates: WayIn[];
  backfill: { pagesPerNight: number; until?: string };
  confirmed: boolean;
  /** Human title ("City Council agendas"). */
  name?: string;
  evidence?: string;
  notes?: string;
}

/**
 * A record page seen in public material that the checker cannot read yet (docs/catalog.md,
 * `leads:`): never fetched; shown on its government's page as not yet confirmed.
 */
export interface Lead {
  government: string;
  records: RecordKind;
  /** As seen: it may lack a scheme or be a template. */
  url: string;
  /** The platform as the material names it, not necessarily a preset. */
  platform?: string;
  why: string;
  evidence?: string;
  notes?: string;
}

export interface Catalog {
  governments: Government[];
  sources: Source[];
  leads: Lead[];
}
