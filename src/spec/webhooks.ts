/** Wire types of webhook deliveries (document 1, part 5). */

export type DeliveryStatus = 'pending' | 'in_flight' | 'succeeded' | 'failed' | 'dead_lettered';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'in_flight', 'succeeded', 'failed', 'dead_lettered'];
