export * from './types';
export * from './dispatch';
export { checkInputShape, findDroppedKey, DEFAULT_LIMITS, type InputLimits } from './inputShape';
