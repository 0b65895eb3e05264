export { expandKey, type KeySchedule } from './expand.js';
