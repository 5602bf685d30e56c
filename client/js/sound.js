// Sounds made with the Web Audio API, from oscillators (no sound files): a move, a game's start
// and end, and low time. A player may mute them; the browser remembers it.

const KEY = "hive.muted";

/** Each sound: its tones, [frequency (Hz), start (s), length (s)], and the wave. */
const SOUNDS = Object.freeze({
  move: { wave: "triangle", tones: [[540, 0, 0.09]] },
  start: { wave: "sine", tones: [[523, 0, 0.14], [784, 0.12, 0.2]] },
  end: { wave: "sine", tones: [[784, 0, 0.16], [587, 0.14, 0.16], [392, 0.28, 0.3]] },
  low: { wave: "square", tones: [[880, 0, 0.07], [880, 0.12, 0.07]] },
});

export class Sounds {
  constructor(storage = localStorage) {
    this.storage = storage;
    this.muted = storage.getItem(KEY) === "1";
    this.context = null; // made at the first sound (browsers start it only after a gesture)
  }

  setMuted(muted) {
    this.muted = muted;
    this.storage.setItem(KEY, muted ? "1" : "0");
  }

  /** Play `name` (a key of SOUNDS) unless muted; whether it was played. */
  play(name) {
    const sound = SOUNDS[name];
    if (this.muted || !sound || typeof AudioContext === "undefined") return false;
    this.context ??= new AudioContext();
    const context = this.context;
    if (context.state === "suspended") context.resume().catch(() => {}); // no gesture yet: silent
    const now = context.currentTime;
    for (const [frequency, at, length] of sound.tones) {
      const oscillator = new OscillatorNode(context, { type: sound.wave, frequency });
      const gain = new GainNode(context, { gain: 0 });
      // a quick attack and an exponential fall: a soft click rather than a beep
      gain.gain.setValueAtTime(0, now + at);
      gain.gain.linearRampToValueAtTime(0.18, now + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(now + at);
      oscillator.stop(now + at + length + 0.02);
    }
    return true;
  }
}
