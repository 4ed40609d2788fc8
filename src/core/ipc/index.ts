export * from '../../shared/bridge';
export * from './dispatch';
export { checkInputShape, findDroppedKey, DEFAULT_LIMITS, type InputLimits } from './inputShape';
