/** A thing on sale: a code, a name and a price in cents. */
export class Item {
  constructor(code, name, priceCents) {
    this.code = code;
    this.name = name;
    this.priceCents = priceCents;
  }

  toString() {
    return `${this.name} (${this.code})`;
  }
}
