export { Cart, formatCents } from './cart.js';
export { Item } from './item.js';
