-- Up Migration

-- Whether the registrar hides the registrant in public WHOIS (docs/api-guide.md, WHOIS privacy).
-- Stored only once the registrar agreed, so it is what the registrar last confirmed.
ALTER TABLE domains ADD COLUMN whois_privacy boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE domains DROP COLUMN whois_privacy;
