/**
 * The platform presets by name: a catalog source with `platform: NAME` and `url:` needs no
 * recipe (P4, P6). `nor extract --platform` and the night look them up
 * here.
 */
import { boarddocs } from "./boarddocs.js";
import { civicclerk } from "./civicclerk.js";
import { civicplusAgendacenter } from "./civicplus-agendacenter.js";
import { civicplusBids } from "./civicplus-bids.js";
import { civicplusRss } from "./civicplus-rss.js";
import { escribe } from "./escribe.js";
import { granicus } from "./granicus.js";
import { granicusOpencities } from "./granicus-opencities.js";
import { icompass } from "./icompass.js";
import { iworq } from "./iworq.js";
import { legistarApi } from "./legistar-api.js";
import { legistarHtml } from "./legistar-html.js";
import { municodeMeetings } from "./municode-meetings.js";
import { novusagenda } from "./novusagenda.js";
import { onbaseAgendaonline } from "./onbase-agendaonline.js";
import { primegov } from "./primegov.js";
import type { Platform } from "./types.js";

const ALL: readonly Platform[] = [
  civicplusAgendacenter,
  civicplusRss,
  legistarApi,
  legistarHtml,
  boarddocs,
  granicus,
  granicusOpencities,
  primegov,
  civicclerk,
  onbaseAgendaonline,
  icompass,
  escribe,
  municodeMeetings,
  novusagenda,
  // Beyond the required list: supported as far as the fixtures show.
  civicplusBids,
  iworq,
];

const BY_NAME = new Map(ALL.map((p) => [p.name, p]));

export function getPlatform(name: string): Platform | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

export const platformNames: readonly string[] = ALL.map((p) => p.name);
