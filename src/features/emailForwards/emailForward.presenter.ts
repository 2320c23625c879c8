import type { z } from 'zod';
import type { EmailForward } from './emailForwards.repository.js';
import type { EmailForwardSchema } from './schemas.js';

export function presentEmailForward(forward: EmailForward, domain: string): z.infer<typeof EmailForwardSchema> {
  return {
    id: forward.id,
    domain,
    local_part: forward.localPart,
    address: `${forward.localPart}@${domain}`,
    to: forward.recipients,
    livemode: forward.livemode,
    created_at: forward.createdAt.toISOString(),
  };
}
