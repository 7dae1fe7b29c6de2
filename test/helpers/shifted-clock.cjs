// A preload (`node --require test/helpers/shifted-clock.cjs bin/vap.js …`) that sets this
// process's clock off by VAP_TEST_CLOCK_SHIFT_MS (10 minutes fast: 600000): `Date.now()` and
// `new Date()` read the shifted time, as on a machine whose clock is wrong. Test code only:
// vap itself has no knob for this.
'use strict';

const shift = Number(process.env.VAP_TEST_CLOCK_SHIFT_MS || 0);
if (shift) {
  const RealDate = Date;
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + shift);
      else super(...args);
    }
    static now() {
      return RealDate.now() + shift;
    }
  }
  globalThis.Date = ShiftedDate;
}
