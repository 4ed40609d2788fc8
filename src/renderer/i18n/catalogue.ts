export type { Catalogue } from '../../shared/catalogue';
