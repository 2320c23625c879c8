import { fuzzRoutes } from './fuzzRoutes.js';

fuzzRoutes(2, 3);
