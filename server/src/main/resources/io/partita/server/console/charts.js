// Charts on uPlot (shipped in the jar from its WebJar, loaded by index.html as the global `uPlot`).

const COLORS = ["#2458c6", "#c8281e", "#1e8a4c", "#8a5cc2", "#d48a00", "#444"];

/** A uPlot chart as wide as `el`, following the window's width; the two kinds differ in their x scale, axes and series. */
class Chart {
  constructor(el, { height, time, axes, series, data }) {
    const width = () => Math.max(320, el.clientWidth || 600);
    this.plot = new uPlot(
      {
        width: width(),
        height,
        legend: { live: false },
        scales: { x: { time }, y: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
        axes,
        series,
      },
      data,
      el,
    );
    this.resize = () => this.plot.setSize({ width: width(), height });
    window.addEventListener("resize", this.resize);
  }

  destroy() {
    window.removeEventListener("resize", this.resize);
    this.plot.destroy();
  }
}

const color = (s, i) => s.color || COLORS[i % COLORS.length];

/**
 * A time-series chart of the last `keep` samples. `series` are [{label, color?, dash?}]; push(t, [values...]) adds
 * one sample (t in seconds).
 */
export class LiveChart extends Chart {
  constructor(el, series, { keep = 120, height = 220, yLabel = "" } = {}) {
    const data = [[], ...series.map(() => [])];
    super(el, {
      height,
      time: true,
      axes: [{}, { label: yLabel, size: 60 }],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: color(s, i), width: 2, dash: s.dash, points: { show: false } }))],
      data,
    });
    this.keep = keep;
    this.data = data;
  }

  push(t, values) {
    this.data[0].push(t);
    values.forEach((v, i) => this.data[i + 1].push(v));
    if (this.data[0].length > this.keep) this.data.forEach((a) => a.shift());
    this.plot.setData(this.data);
  }
}

/** A chart over x (not time): lines and point series, all aligned on the same xs; setData(ys) redraws. */
export class XYChart extends Chart {
  constructor(el, xs, series, { height = 260, xLabel = "", yLabel = "" } = {}) {
    super(el, {
      height,
      time: false,
      axes: [{ label: xLabel }, { label: yLabel, size: 60 }],
      series: [
        { label: xLabel },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: color(s, i),
          width: s.points ? 0 : 2,
          dash: s.dash,
          paths: s.points ? () => null : undefined,
          points: s.points ? { show: true, size: 9, fill: color(s, i) } : { show: false },
          spanGaps: !s.points,
        })),
      ],
      data: [xs, ...series.map(() => xs.map(() => null))],
    });
    this.xs = xs;
  }

  setData(ys) {
    this.plot.setData([this.xs, ...ys]);
  }
}
