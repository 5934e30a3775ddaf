/**
 * The night report's chart: what the night's sources answered, and how much of the night's
 * time limit (P13) the check used, as one inline SVG. It is an image with a name and a
 * description (role="img", <title>, <desc>), and the same words stand under it as a caption,
 * so nothing is said by color or shape alone. No script, no inline style: colors are SVG
 * presentation attributes, which the CSP (style-src 'self') does not govern.
 */
import type { FC } from "hono/jsx";
import { hoursAndMinutes } from "../../night/duration.js";
import { SITE_OWNER_ZONE, wallTimeAt } from "../../policy/zone.js";
import { countOf, type OutcomeTone, outcomeLabel } from "../public/format.js";

export interface ChartInput {
  startedAt: string;
  deadlineAt: string;
  finishedAt: string | null;
  /** Finished by being closed incomplete (interrupted, not resumed in time), not run to its end. */
  closedIncomplete?: boolean;
  byKind: readonly { kind: string; count: number }[];
  /** When each source the night reached ended its check, earliest first. */
  ended: readonly string[];
}

/** Fill per tone: the same five the public strip uses. */
const TONE_FILL: Record<OutcomeTone, string> = {
  yes: "#2da44e",
  no: "#cf222e",
  skip: "#8c959f",
  trouble: "#d4a72c",
  offline: "#eaeef2",
};

const UNCHANGED_FILL = "#8fd19e";

/** The chart's width in its own units; it scales to its box (svg.chart in style.ts). */
const W = 520;
const BAR_H = 22;
const LEGEND_ROW = 20;
const LEGEND_COLS = 2;
const PLOT_H = 90;
/** Room the "start" label takes under the axis: the end's label starts after it. */
const START_LABEL = 84;
/** The line of sources done over time is drawn with at most this many steps. */
const MAX_STEPS = 240;

export interface ChartModel {
  total: number;
  segments: {
    kind: string;
    count: number;
    percent: number;
    x: number;
    width: number;
    fill: string;
  }[];
  /** Ms from the start: the limit, the time used (to the finish or the last check). */
  limitMs: number;
  usedMs: number;
  finished: boolean;
  /** Closed incomplete rather than finished (its end is when its time ran out). */
  closedIncomplete: boolean;
  /** Ms from the start to the end of the time axis (the later of deadline and end). */
  spanMs: number;
  /** Ms from the start at which each reached source ended, downsampled, with its count. */
  steps: { atMs: number; done: number }[];
  reached: number;
  startedAt: number;
  deadlineAt: number;
  endAt: number;
}

export function chartModel(c: ChartInput): ChartModel {
  const total = c.byKind.reduce((a, k) => a + k.count, 0);
  let x = 0;
  const segments = c.byKind.map((k) => {
    const width = total === 0 ? 0 : (k.count / total) * W;
    const s = {
      kind: k.kind,
      count: k.count,
      percent: total === 0 ? 0 : Math.round((k.count / total) * 100),
      x,
      width,
      // "unchanged" is a yes too, a lighter green, so it stands apart from "ok" beside it.
      fill: k.kind === "unchanged" ? UNCHANGED_FILL : TONE_FILL[outcomeLabel(k.kind).tone],
    };
    x += width;
    return s;
  });
  const startedAt = Date.parse(c.startedAt);
  const deadlineAt = Date.parse(c.deadlineAt);
  const ended = c.ended.map((e) => Date.parse(e)).filter((t) => !Number.isNaN(t));
  const last = ended.reduce((a, t) => Math.max(a, t), startedAt);
  const endAt = c.finishedAt ? Date.parse(c.finishedAt) : last;
  const limitMs = Math.max(0, deadlineAt - startedAt);
  const usedMs = Math.max(0, endAt - startedAt);
  const spanMs = Math.max(limitMs, usedMs, 1);
  const every = Math.max(1, Math.ceil(ended.length / MAX_STEPS));
  const steps: ChartModel["steps"] = [];
  for (let i = 0; i < ended.length; i++) {
    if ((i + 1) % every === 0 || i === ended.length - 1) {
      steps.push({ atMs: Math.max(0, (ended[i] ?? startedAt) - startedAt), done: i + 1 });
    }
  }
  return {
    total,
    segments,
    limitMs,
    usedMs,
    finished: c.finishedAt !== null,
    closedIncomplete: c.finishedAt !== null && c.closedIncomplete === true,
    spanMs,
    steps,
    reached: ended.length,
    startedAt,
    deadlineAt,
    endAt,
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

/** `03:12` in Ohio's wall time (the zone the operator and site owners read). */
function hm(t: number): string {
  const w = wallTimeAt(t, SITE_OWNER_ZONE);
  return `${pad(w.hour)}:${pad(w.minute)}`;
}

/**
 * `2 h 05 min`, `14 min`, `under a minute`: from a minute on, rounded to the nearest minute as
 * `nor night` says it (hoursAndMinutes), so 1 h 59 min 59 s reads 2 h 00 min, never 1 h 59 min.
 */
export function duration(ms: number): string {
  if (!(ms >= 60_000)) return "under a minute";
  const { h, min } = hoursAndMinutes(ms);
  return h === 0 ? `${min} min` : `${h} h ${pad(min)} min`;
}

/** The chart in words: its <desc> and its visible caption. */
export function chartWords(m: ChartModel): { title: string; outcomes: string; time: string } {
  const outcomes =
    m.total === 0
      ? "No source was checked."
      : `Outcomes of ${countOf(m.total, "source")}: ${m.segments
          .map((s) => `${s.kind} ${s.count} (${s.percent}%)`)
          .join(", ")}.`;
  const percent = m.limitMs > 0 ? Math.round((m.usedMs / m.limitMs) * 100) : 0;
  const end = m.closedIncomplete
    ? `closed incomplete ${hm(m.endAt)} ET`
    : m.finished
      ? `finished ${hm(m.endAt)} ET`
      : `not finished (last check ended ${hm(m.endAt)} ET)`;
  const time = `Started ${hm(m.startedAt)} ET, ${end}: ${duration(m.usedMs)} of the ${duration(
    m.limitMs,
  )} limit (${percent}%), deadline ${hm(m.deadlineAt)} ET. ${countOf(m.reached, "source")} reached${
    m.total > m.reached ? `, ${m.total - m.reached} not reached` : ""
  }.`;
  return {
    title: "The night's outcomes and the time it used against its deadline",
    outcomes,
    time,
  };
}

export const NightChart: FC<{ input: ChartInput }> = ({ input }) => {
  const m = chartModel(input);
  const words = chartWords(m);
  const legendRows = Math.ceil(m.segments.length / LEGEND_COLS);
  const barY = 24;
  const legendY = barY + BAR_H + 16;
  const timeY = legendY + legendRows * LEGEND_ROW + 18;
  const plotY = timeY + 12;
  const axisY = plotY + PLOT_H + 16;
  const height = axisY + 8;
  const xOf = (ms: number) => (ms / m.spanMs) * W;
  const yOf = (done: number) => plotY + PLOT_H - (m.total === 0 ? 0 : (done / m.total) * PLOT_H);
  let path = `M0 ${yOf(0)}`;
  for (const s of m.steps) path += ` H${xOf(s.atMs).toFixed(1)} V${yOf(s.done).toFixed(1)}`;
  const deadlineX = xOf(m.limitMs);
  const endX = xOf(m.usedMs);
  const percent = m.limitMs > 0 ? Math.round((m.usedMs / m.limitMs) * 100) : 0;
  return (
    <figure class="night-chart">
      <svg
        class="chart"
        role="img"
        aria-labelledby="night-chart-title night-chart-desc"
        viewBox={`0 0 ${W} ${height}`}
        width={W}
        height={height}
      >
        <title id="night-chart-title">{words.title}</title>
        <desc id="night-chart-desc">
          {words.outcomes} {words.time}
        </desc>
        <text x={0} y={15} font-size={14} font-weight="600" fill="#1f2328">
          Outcomes of {countOf(m.total, "source")}
        </text>
        <rect x={0} y={barY} width={W} height={BAR_H} fill="#f6f8fa" stroke="#d8dee4" />
        {m.segments.map((s) => (
          <rect
            x={s.x.toFixed(2)}
            y={barY}
            width={s.width.toFixed(2)}
            height={BAR_H}
            fill={s.fill}
            stroke="#fff"
            data-kind={s.kind}
          />
        ))}
        {m.segments.map((s, i) => {
          const lx = (i % LEGEND_COLS) * (W / LEGEND_COLS);
          const ly = legendY + Math.floor(i / LEGEND_COLS) * LEGEND_ROW;
          return (
            <g>
              <rect x={lx} y={ly - 10} width={11} height={11} fill={s.fill} stroke="#57606a" />
              <text x={lx + 16} y={ly} font-size={13} fill="#1f2328">
                {s.kind} {s.count} ({s.percent}%)
              </text>
            </g>
          );
        })}
        <text x={0} y={timeY} font-size={14} font-weight="600" fill="#1f2328">
          Time used: {duration(m.usedMs)} of {duration(m.limitMs)} ({percent}%)
        </text>
        <rect
          x={0}
          y={plotY}
          width={deadlineX.toFixed(1)}
          height={PLOT_H}
          fill="#f6f8fa"
          stroke="#d8dee4"
        />
        <path d={path} fill="none" stroke="#0645ad" stroke-width={2} class="done-line" />
        <line
          x1={endX.toFixed(1)}
          x2={endX.toFixed(1)}
          y1={plotY}
          y2={plotY + PLOT_H}
          stroke="#1f2328"
          stroke-width={1.5}
          class="end-line"
        />
        <line
          x1={deadlineX.toFixed(1)}
          x2={deadlineX.toFixed(1)}
          y1={plotY - 4}
          y2={plotY + PLOT_H}
          stroke="#cf222e"
          stroke-width={2}
          stroke-dasharray="5 3"
          class="deadline-line"
        />
        <text x={0} y={axisY} font-size={12} fill="#57606a">
          {hm(m.startedAt)} start
        </text>
        <text
          x={(endX < W - 130 ? Math.max(endX + 4, START_LABEL) : endX - 4).toFixed(1)}
          y={axisY}
          font-size={12}
          fill="#1f2328"
          text-anchor={endX < W - 130 ? "start" : "end"}
        >
          {m.closedIncomplete ? "closed incomplete" : m.finished ? "finished" : "last check"}{" "}
          {hm(m.endAt)}
        </text>
        <text
          x={(deadlineX < 150 ? deadlineX + 4 : deadlineX - 4).toFixed(1)}
          y={plotY + 14}
          font-size={12}
          fill="#a40e26"
          text-anchor={deadlineX < 150 ? "start" : "end"}
        >
          deadline {hm(m.deadlineAt)}
        </text>
      </svg>
      <figcaption class="small">
        {words.outcomes} {words.time} The blue line counts the sources checked so far; the red
        dashed line is the deadline.
      </figcaption>
    </figure>
  );
};
