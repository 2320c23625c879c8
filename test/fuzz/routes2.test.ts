import { fuzzRoutes } from './fuzzRoutes.js';

fuzzRoutes(1, 3);
