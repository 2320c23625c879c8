/**
 * The scale curves as a small SVG, written by hand: two panels of lines, each the growth factor
 * (the figure ÷ the same on a zone or organisation of one page, 100 rows; log scale) against the size. A chart
 * library would bring a DOM or a canvas for a few dozen lines of text.
 */
export interface Curve {
  name: string;
  points: { size: number; factor: number }[];
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2'];
const [WIDTH, PANEL_HEIGHT, LEFT, TOP, PLOT_WIDTH, PLOT_HEIGHT] = [960, 330, 60, 40, 520, 230];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Two decimals below 10, so a page read at 1.55× does not read as the 1.5× it missed. */
const factorLabel = (factor: number) => `${factor.toFixed(factor < 10 ? 2 : 1)}×`;
const sizeLabel = (size: number) => (size >= 1_000 ? `${size / 1_000}k` : String(size));

function panel(title: string, curves: Curve[], offsetY: number): string[] {
  const sizes = [...new Set(curves.flatMap((c) => c.points.map((p) => p.size)))].sort((a, b) => a - b);
  const factors = curves.flatMap((c) => c.points.map((p) => p.factor)).filter((f) => f > 0);
  const [low, high] = [Math.min(0.5, ...factors), Math.max(2, ...factors)];
  const [logLow, logHigh] = [Math.log10(low), Math.log10(high)];
  const x = (size: number) => LEFT + (sizes.indexOf(size) / Math.max(1, sizes.length - 1)) * PLOT_WIDTH;
  const y = (factor: number) => offsetY + TOP + PLOT_HEIGHT - ((Math.log10(Math.max(factor, low)) - logLow) / (logHigh - logLow)) * PLOT_HEIGHT;
  const out = [`<text x="${LEFT}" y="${offsetY + 24}" font-weight="bold">${escape(title)}</text>`];
  out.push(`<rect x="${LEFT}" y="${offsetY + TOP}" width="${PLOT_WIDTH}" height="${PLOT_HEIGHT}" fill="none" stroke="#999"/>`);
  for (const size of sizes) out.push(`<text x="${x(size)}" y="${offsetY + TOP + PLOT_HEIGHT + 18}" text-anchor="middle">${sizeLabel(size)}</text>`);
  for (let power = Math.floor(logLow); power <= Math.floor(logHigh); power += 1) {
    for (const factor of [10 ** power, 2 * 10 ** power, 5 * 10 ** power].filter((f) => f >= low && f <= high)) {
      out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_WIDTH}" y1="${y(factor).toFixed(1)}" y2="${y(factor).toFixed(1)}" stroke="#eee"/>`);
      out.push(`<text x="${LEFT - 6}" y="${(y(factor) + 4).toFixed(1)}" text-anchor="end">${factor}×</text>`);
    }
  }
  out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_WIDTH}" y1="${y(1.5).toFixed(1)}" y2="${y(1.5).toFixed(1)}" stroke="#999" stroke-dasharray="4 4"/>`);
  out.push(`<text x="${LEFT + PLOT_WIDTH - 4}" y="${(y(1.5) - 4).toFixed(1)}" text-anchor="end" fill="#666">1.5× (page reads' target)</text>`);
  curves.forEach((curve, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const points = curve.points.map((p) => `${x(p.size).toFixed(1)},${y(p.factor).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${points}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of curve.points) out.push(`<circle cx="${x(p.size).toFixed(1)}" cy="${y(p.factor).toFixed(1)}" r="3" fill="${colour}"/>`);
    const last = curve.points.at(-1);
    const legendY = offsetY + TOP + 12 + i * 20;
    out.push(`<line x1="${LEFT + PLOT_WIDTH + 20}" x2="${LEFT + PLOT_WIDTH + 44}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${colour}" stroke-width="2"/>`);
    out.push(`<text x="${LEFT + PLOT_WIDTH + 50}" y="${legendY}">${escape(curve.name)}${last ? ` (${factorLabel(last.factor)})` : ''}</text>`);
  });
  return out;
}

export function scaleSvg(props: { machine: string; panels: { title: string; curves: Curve[] }[] }): string {
  const height = props.panels.length * PANEL_HEIGHT + 50;
  const body = props.panels.flatMap((p, i) => panel(p.title, p.curves, i * PANEL_HEIGHT));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...body,
    `<text x="${LEFT}" y="${height - 26}" fill="#666">Growth factor: the figure ÷ the same with one page (100 rows) in the zone or organisation (log scale).</text>`,
    `<text x="${LEFT}" y="${height - 8}" fill="#666">${escape(props.machine)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
