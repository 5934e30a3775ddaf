import { readdirSync, readFileSync } from "node:fs";
import { it } from "vitest";
import { getPlatform } from "../../../src/sources/platforms/index.js";
const map: Record<string, [string, string]> = {};
it("scratch", () => {
  const dir = "test/fixtures/platforms";
  const urls: Record<string, string> = {
    boarddocs: "https://go.boarddocs.com/oh/x/Board.nsf/BD-GetMeetingsList?open",
    civicclerk: "https://tulsacook.api.civicclerk.com/v1/Events",
    "legistar-api": "https://webapi.legistar.com/v1/x/events?$top=2&$skip=0",
    primegov: "https://lacity.primegov.com/api/v2/PublicPortal/ListUpcomingMeetings",
    escribe: "https://pub-chulavista.escribemeetings.com/MeetingsCalendarView.aspx/GetCalendarMeetings",
    "icompass-diligent": "https://dallasisd.community.highbond.com/Services/MeetingsService.svc/meetings",
    "granicus-opencities": "https://www.columbus.gov/ocapi/calendars/getcalendaritems",
    granicus: "https://lakewales.granicus.com/ViewPublisher.php?view_id=1",
    "civicplus-rss": "https://www.x.gov/RSSFeed.aspx?ModID=65&CID=All-0",
    "civicplus-agendacenter": "https://www.x.gov/AgendaCenter",
    "legistar-html": "https://x.legistar.com/Calendar.aspx",
    "onbase-agendaonline": "https://onlinedocs.akronohio.gov/OnBaseAgendaOnline/Meetings/Search?dropid=11",
    "municode-meetings": "https://meetings.municode.com/PublishPage?cid=CLOVIS&ppid=5157d66d-a361-43e8-87a4-3d5eca4821de&p=1",
    novusagenda: "https://dinuba.novusagenda.com/agendapublic/meetingsgeneral.aspx",
  };
  for (const d of readdirSync(dir)) {
    const name = d === "icompass-diligent" ? "icompass" : d;
    const p = getPlatform(name);
    if (!p) continue;
    for (const f of readdirSync(`${dir}/${d}`)) {
      let u = urls[d]!;
      if (d === "civicplus-rss") u = f.includes("ModID58") ? "https://x/RSSFeed.aspx?ModID=58" : f.includes("ModID1_") ? "https://x/RSSFeed.aspx?ModID=1" : u;
      const t0 = performance.now();
      const buf = readFileSync(`${dir}/${d}/${f}`); const x = p.extract(buf, u);
      const ms = (performance.now() - t0).toFixed(1);
      const meetings = new Set(x.records.map((r) => r.id.split("#")[0]));
      console.log(`${d}/${f}: ${x.records.length} recs, ${meetings.size} mtgs, ${ms}ms note=${x.note} next=${x.next}`);
      console.log("  first", JSON.stringify(x.records[0]));
      console.log("  last ", JSON.stringify(x.records.at(-1)));
      if (p.nextRequest) { const n = p.nextRequest({method:"GET",url:u}, buf, x); console.log("  nextReq", n && {...n, body: n.body?.slice(0,100)+"..."+n.body?.slice(-300)}); }
    }
  }
});
