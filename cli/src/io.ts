import { createInterface } from 'node:readline/promises';

/** Styles for a terminal; plain text elsewhere, and with NO_COLOR set (no-color.org). */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
}

function paintFor(stream: NodeJS.WriteStream): Paint {
  const on = stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  const style = (open: number, close: number) => (text: string) => (on ? `\x1b[${open}m${text}\x1b[${close}m` : text);
  return { bold: style(1, 22), dim: style(2, 22), green: style(32, 39), yellow: style(33, 39), red: style(31, 39) };
}

/** A line redrawn in place on a terminal while something long runs; nothing at all elsewhere. */
export interface Progress {
  update(text: string): void;
  /** Clears the line (the result is printed after it). */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Where a command writes. The result goes to stdout (JSON with `--json`), and only the result, so a
 * pipe gets nothing else; what is for the person (progress, hints, prompts) goes to stderr, and only
 * when it is a terminal, except `notice`, which a person must see wherever they are (a sign-in code).
 */
export class Io {
  readonly paint: Paint;
  readonly errPaint: Paint;

  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
    private readonly stdin: NodeJS.ReadStream = process.stdin,
  ) {
    this.paint = paintFor(stdout);
    this.errPaint = paintFor(stderr);
  }

  /** A person is at a terminal: prompts can be answered and progress seen. */
  get interactive(): boolean {
    return this.stdin.isTTY === true && this.stderr.isTTY === true;
  }

  /** The result: `value` as JSON with `--json`, else the lines for a person. */
  result(value: unknown, lines: string[] | (() => string[])): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else for (const line of typeof lines === 'function' ? lines() : lines) this.stdout.write(`${line}\n`);
  }

  /** One line of a result that comes a line at a time (a JSON object per line with `--json`). */
  line(value: unknown, text: string): void {
    this.stdout.write(`${this.json ? JSON.stringify(value) : text}\n`);
  }

  /** For the person at a terminal; left out in a pipe. */
  hint(text: string): void {
    if (this.stderr.isTTY) this.stderr.write(`${this.errPaint.dim(text)}\n`);
  }

  /** For the person, wherever stderr goes. */
  notice(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  error(text: string): void {
    this.stderr.write(`${this.errPaint.red('error')} ${text}\n`);
  }

  progress(initial: string): Progress {
    if (!this.stderr.isTTY) return { update() {}, stop() {} };
    const started = Date.now();
    let text = initial;
    let frame = 0;
    const draw = () => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      this.stderr.write(`\r\x1b[2K${this.errPaint.yellow(FRAMES[frame++ % FRAMES.length]!)} ${text} ${this.errPaint.dim(`${seconds}s`)}`);
    };
    draw();
    const timer = setInterval(draw, 120);
    return {
      update: (next) => {
        text = next;
        draw();
      },
      stop: () => {
        clearInterval(timer);
        this.stderr.write('\r\x1b[2K');
      },
    };
  }

  /** Asks on the terminal; false for anything but yes. Call only when `interactive`. */
  async confirm(question: string): Promise<boolean> {
    const prompt = createInterface({ input: this.stdin, output: this.stderr });
    try {
      const answer = await prompt.question(`${question} ${this.errPaint.dim('[y/N]')} `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      prompt.close();
    }
  }
}

/** Rows as aligned columns, the header dimmed. */
export function table(paint: Paint, header: string[], rows: string[][]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [paint.dim(line(header)), ...rows.map(line)];
}
