-- Up Migration

-- Which version of a contact the upstream registrar holds. A contact whose `version` is ahead of it
-- has a change the registrar has not seen yet: the next registration or transfer that uses it (or
-- the sync started by the change) sends it before going on. Null until the contact exists upstream.
ALTER TABLE contacts ADD COLUMN registrar_contact_version integer;

-- Down Migration
ALTER TABLE contacts DROP COLUMN registrar_contact_version;
