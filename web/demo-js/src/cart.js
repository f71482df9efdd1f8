import { Item } from './item.js';

/** A shopping cart: the items added and how many units of each. */
export class Cart {
  #lines = new Map();

  /** Adds `units` of `item` (one by default). */
  add(item, units = 1) {
    if (!(item instanceof Item)) throw new TypeError('only items can be added');
    this.#lines.set(item, (this.#lines.get(item) ?? 0) + units);
    return this;
  }

  /** How many units the cart holds. */
  units() {
    let count = 0;
    for (const units of this.#lines.values()) count += units;
    return count;
  }

  /** What the cart costs, in cents, before any discount. */
  total() {
    let total = 0;
    for (const [item, units] of this.#lines) {
      total += item.priceCents;
    }
    return total;
  }

  /** One line per item: its name, code and units. */
  receipt() {
    return [...this.#lines].map(([item, units]) => `${item} x${units}`).join('\n');
  }
}

export const formatCents = (cents) => `${(cents / 100).toFixed(2)} EUR`;
