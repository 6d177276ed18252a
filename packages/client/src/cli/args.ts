/**
 * Command-line words into positionals and options. `--name value`, `--name=value`, a bare
 * `--name` (true), `--no-name` (false); an option given twice keeps every value in order; `--`
 * ends the options. A value may start with a single dash (`--pitch -0.5`), never with two.
 * Options are spelled in kebab-case (`--max-credits`); the snake_case spelling of the same name
 * (`--max_credits`, as the API names the field) is taken as the same option.
 */

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export type OptionValue = string | true | false;

export interface ParsedArgs {
  positionals: string[];
  /** Every option as written (name without dashes), each with its values in order. */
  options: Map<string, OptionValue[]>;
  /** Every option as written, one entry per occurrence, in order. */
  order?: [string, OptionValue][];
}

/** Options that never take a value. */
export const SWITCHES: ReadonlySet<string> = new Set([
  "json",
  "help",
  "h",
  "no-wait",
  "version",
  "quote",
  "yes",
  "no-fallbacks",
  "stream",
  "keep-old",
]);

/** Options of every command. */
export const GLOBAL_OPTIONS = ["json", "help", "h", "version", "base-url", "api-key"] as const;

/**
 * `generate`'s own options. Every other option of `generate` is a request field, so no field of
 * any operation may be named like one of these (nor like a global option or switch): a test
 * holds the generated operation table to that.
 */
export const GENERATE_OPTIONS = [
  "body",
  "set",
  "media",
  "out",
  "no-wait",
  "timeout",
  "idempotency-key",
  "quote",
  "ask-above",
  "yes",
  "retention-days",
  "provider-order",
  "provider-only",
  "provider-ignore",
  "sort",
  "no-fallbacks",
] as const;

/** An option's kebab-case spelling: `max_credits` is `max-credits`. */
export function kebab(name: string): string {
  return name.replaceAll("_", "-");
}

/** The spellings an option is taken under: `max-credits` and `max_credits`. */
function spellings(name: string): string[] {
  const snake = name.replaceAll("-", "_");
  return snake === name ? [name] : [name, snake];
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, OptionValue[]>();
  const order: [string, OptionValue][] = [];
  const add = (name: string, value: OptionValue) => {
    options.set(name, [...(options.get(name) ?? []), value]);
    order.push([name, value]);
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (word === "-h") {
      add("help", true);
      continue;
    }
    if (!word.startsWith("--") || word === "--") {
      positionals.push(word);
      continue;
    }
    const body = word.slice(2);
    const eq = body.indexOf("=");
    if (eq > 0) {
      add(body.slice(0, eq), body.slice(eq + 1));
      continue;
    }
    if (SWITCHES.has(body) || SWITCHES.has(kebab(body))) {
      add(body, true);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith("--")) {
      add(body, next);
      i++;
    } else if (body.startsWith("no-") && body.length > 3) {
      add(body.slice(3), false);
    } else {
      add(body, true);
    }
  }
  return { positionals, options, order };
}

/** Reads options off a parsed command line, so that whatever is left can be reported as unknown. */
export class Options {
  private readonly seen = new Set<string>();
  constructor(readonly parsed: ParsedArgs) {}

  /** Every value of the option, under either spelling, in the order written. */
  private values(name: string): OptionValue[] | undefined {
    const names = spellings(name);
    for (const n of names) this.seen.add(n);
    const found = [...this.parsed.options].filter(([n]) => names.includes(n));
    if (found.length === 0) return undefined;
    if (found.length === 1) return found[0]?.[1];
    // Both spellings: in the order they were written (the map keeps first appearances).
    const order = this.parsed.order ?? [];
    return order.filter(([n]) => names.includes(n)).map(([, v]) => v);
  }

  has(name: string): boolean {
    return this.values(name) !== undefined;
  }

  flag(name: string): boolean {
    const values = this.values(name);
    const last = values?.[values.length - 1];
    if (typeof last === "string") throw new UsageError(`--${name} takes no value (got '${last}')`);
    return last === true;
  }

  string(name: string): string | undefined {
    const values = this.values(name);
    if (!values?.length) return undefined;
    const last = values[values.length - 1];
    if (typeof last !== "string") throw new UsageError(`--${name} needs a value`);
    return last;
  }

  strings(name: string): string[] {
    return (this.values(name) ?? []).map((v) => {
      if (typeof v !== "string") throw new UsageError(`--${name} needs a value`);
      return v;
    });
  }

  number(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number (got '${v}')`);
    return n;
  }

  /** Options not read by anyone. */
  rest(): [string, OptionValue[]][] {
    return [...this.parsed.options].filter(([name]) => !this.seen.has(name));
  }

  /** Refuses any option nobody read. */
  done(command: string): void {
    const left = this.rest();
    if (left.length) throw new UsageError(`unknown option for ${command}: ${left.map(([n]) => `--${n}`).join(", ")}`);
  }
}
