-- Up Migration

-- A move may be proposed to any organisation id, and the answer must not tell whether it exists
-- (docs/api-guide.md, Moving a domain): a move to an id no organisation has is kept pending like any
-- other and expires unanswered, so its target cannot reference organizations.
ALTER TABLE domain_moves DROP CONSTRAINT domain_moves_to_org_id_fkey;

-- A move can be accepted only while its proposer is an owner or admin of the source; removing or
-- demoting them now cancels their pending moves (src/features/domainMoves/proposerMoves.ts); the
-- pending moves of proposers who had already lost that standing are cancelled here, as the source's.
UPDATE domain_moves m SET status = 'cancelled', cancelled_by_org_id = m.from_org_id, decided_at = now()
WHERE m.status = 'pending'
  AND NOT EXISTS (SELECT 1 FROM memberships s WHERE s.org_id = m.from_org_id AND s.user_id = m.proposed_by AND s.role IN ('owner', 'admin'));

-- The pending moves of a source, counted on each proposal (a bound per organisation and mode) and
-- cancelled with their proposer's standing.
CREATE INDEX domain_moves_pending_from_idx ON domain_moves (from_org_id, livemode, proposed_by) WHERE status = 'pending';

-- Down Migration
DROP INDEX domain_moves_pending_from_idx;
DELETE FROM domain_moves m WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = m.to_org_id);
ALTER TABLE domain_moves ADD CONSTRAINT domain_moves_to_org_id_fkey FOREIGN KEY (to_org_id) REFERENCES organizations (id);
