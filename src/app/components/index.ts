import { DEMO_CATALOG_ID, PortraitCard } from './portrait-card.ts';

/** The demo's own components (defineComponent) and its catalogue id. */
export const DEMO_COMPONENTS = [PortraitCard] as const;
export { DEMO_CATALOG_ID, PortraitCard };
