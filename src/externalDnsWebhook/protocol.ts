import { z } from 'zod';

/**
 * external-dns's webhook protocol, version 1 (docs/external-dns.md): the JSON shapes of its Go types
 * `endpoint.Endpoint`, `plan.Changes` and `endpoint.DomainFilter`, and the one media type, which its
 * client compares byte for byte (no space, no charset).
 */
export const WEBHOOK_MEDIA_TYPE = 'application/external.dns.webhook+json;version=1';

/** One RRset as external-dns sees it: a name, a type and every value of it. */
export interface Endpoint {
  dnsName: string;
  targets: string[];
  recordType: string;
  setIdentifier: string;
  /** Seconds; 0 is "not configured" (the provider's default). */
  recordTTL: number;
  labels: Record<string, string>;
  providerSpecific: { name: string; value: string }[];
}

/** `{include, exclude}`: the zones this provider serves. external-dns also knows a regex form, unused here. */
export interface DomainFilter {
  include: string[];
  exclude: string[];
}

// Go leaves out empty fields (`omitempty`) and writes nil slices and maps as null: both mean "none".
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((value) => value ?? []);

export const EndpointSchema = z
  .object({
    dnsName: z.string().max(255),
    targets: list(z.string().max(4_096)),
    recordType: z.string().max(16),
    setIdentifier: z.string().max(255).nullish().transform((value) => value ?? ''),
    recordTTL: z.number().int().min(0).nullish().transform((value) => value ?? 0),
    labels: z.record(z.string(), z.string()).nullish().transform((value) => value ?? {}),
    providerSpecific: list(z.object({ name: z.string().nullish(), value: z.string().nullish() })).transform((properties) =>
      properties.map((p) => ({ name: p.name ?? '', value: p.value ?? '' })),
    ),
  })
  .transform((endpoint): Endpoint => endpoint);

export const EndpointListSchema = list(EndpointSchema);

export interface Changes {
  create: Endpoint[];
  updateOld: Endpoint[];
  updateNew: Endpoint[];
  delete: Endpoint[];
}

const CHANGE_KEYS = ['create', 'updateOld', 'updateNew', 'delete'] as const;
const capitalised = (key: string) => key[0]!.toUpperCase() + key.slice(1);

/**
 * `plan.Changes`: lower-case keys since external-dns v0.17, capitalised ones before it (the Go
 * struct had no JSON tags). A body naming one list both ways is refused rather than guessed at.
 */
export const ChangesSchema = z
  .object(Object.fromEntries(CHANGE_KEYS.flatMap((key) => [[key, EndpointListSchema.optional()], [capitalised(key), EndpointListSchema.optional()]])))
  .superRefine((body, ctx) => {
    for (const key of CHANGE_KEYS) {
      if ((body[key]?.length ?? 0) > 0 && (body[capitalised(key)]?.length ?? 0) > 0) {
        ctx.addIssue({ code: 'custom', path: [key], message: `Send ${key} or ${capitalised(key)}, not both` });
      }
    }
  })
  .transform(
    (body): Changes =>
      Object.fromEntries(CHANGE_KEYS.map((key) => [key, (body[key]?.length ? body[key] : body[capitalised(key)]) ?? []])) as unknown as Changes,
  );
