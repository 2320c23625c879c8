-- Up Migration

-- Registrant, admin and tech contacts of an organisation, per mode. Deletion is a hard delete: a
-- deleted contact is gone (the audit trail keeps that it existed); one a domain still uses cannot be
-- deleted, which the foreign key of domain_contacts enforces as well.
CREATE TABLE contacts (
  id                    text PRIMARY KEY,
  org_id                text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  livemode              boolean NOT NULL,
  first_name            text NOT NULL,
  last_name             text NOT NULL,
  organization          text,
  email                 text NOT NULL,
  phone                 text NOT NULL,
  address1              text NOT NULL,
  address2              text,
  city                  text NOT NULL,
  state                 text,
  postal_code           text NOT NULL,
  country               text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  -- Raised by one on every change; the ETag. PATCH and DELETE with If-Match compare against it.
  version               integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  -- The upstream registrar's id for this contact, once the live adapter has created it there.
  registrar_contact_id  text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  -- Lets domain_contacts require that a domain and its contacts share a mode.
  UNIQUE (id, livemode)
);
CREATE INDEX contacts_org_idx ON contacts (org_id, livemode, created_at DESC, id DESC);

-- Which contact a domain uses in which role. Filled by the domains feature; contacts only read it
-- (a contact in use cannot be deleted). The foreign key includes the mode, so a domain never uses a
-- contact of the other mode, and it refuses to delete a contact that is still referenced.
CREATE TABLE domain_contacts (
  domain_id   text NOT NULL,
  contact_id  text NOT NULL,
  role        text NOT NULL CHECK (role IN ('registrant', 'admin', 'tech')),
  livemode    boolean NOT NULL,
  PRIMARY KEY (domain_id, role),
  FOREIGN KEY (contact_id, livemode) REFERENCES contacts (id, livemode)
);
CREATE INDEX domain_contacts_contact_idx ON domain_contacts (contact_id);

-- Down Migration
DROP TABLE domain_contacts;
DROP TABLE contacts;
