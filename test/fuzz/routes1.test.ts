import { fuzzRoutes } from './fuzzRoutes.js';

fuzzRoutes(0, 3);
