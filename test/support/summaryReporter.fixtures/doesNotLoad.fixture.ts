import { expect, it } from 'vitest';
// A module that is not there, as a file that fails to load.
import './noSuchModule.js';

it('never collected', () => expect(1).toBe(1));
