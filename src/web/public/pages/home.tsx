import type { FC } from "hono/jsx";
import { Layout } from "../../layout.js";
import type { DirectoryCounts } from "../data/directory.js";
import type { NewOnRecord } from "../data/new-records.js";
import { nightShort } from "../format.js";
import { NewList } from "./new.js";

export const HomePage: FC<{
  counts: DirectoryCounts;
  latest: NewOnRecord;
  shown: number;
  counties: readonly string[];
}> = ({ counts, latest, shown, counties }) => (
  <Layout title="Ohio's public records, where they are posted">
    <h1>Where Ohio's governments post public records</h1>
    <p>
      New on Record lists the pages where Ohio's counties, cities, villages, townships, school
      districts and other public bodies post agendas, minutes, bids, permits and notices. Each night
      a polite checker looks at those pages and notes what is new. We link to the records; we never
      open or copy them.
    </p>
    <p class="counts">
      <strong>{counts.governments}</strong> governments, <strong>{counts.sources}</strong> record
      pages, <strong>{counts.records}</strong> records noted so far.
    </p>
    <h2>Newest across Ohio</h2>
    {latest.night ? (
      <>
        <p class="muted">
          {latest.items.length === 0
            ? `Nothing new was seen on the night of ${nightShort(latest.night.night)}.`
            : `First seen on the night of ${nightShort(latest.night.night)}${
                latest.items.length > shown || latest.capped ? ` (the newest ${shown} shown)` : ""
              }.`}{" "}
          <a href="/new">All that is new on record</a>
        </p>
        <NewList items={latest.items.slice(0, shown)} />
      </>
    ) : (
      <p class="muted">No night has been checked yet.</p>
    )}
    <h2>Counties</h2>
    {counties.length === 0 ? (
      <p class="muted">The directory is empty.</p>
    ) : (
      <ul class="counties">
        {counties.map((c) => (
          <li>
            <a href={`/governments?county=${encodeURIComponent(c)}`}>{c}</a>
          </li>
        ))}
      </ul>
    )}
    <p>
      <a href="/governments">All governments</a> ·{" "}
      <a href="/governments?kind=state-agency">State agencies</a>
    </p>
  </Layout>
);
