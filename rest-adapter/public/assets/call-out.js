/*
 * How a ready number is called aloud: the display's bell, then the number spoken by a voice of the
 * page's language. Shared by the room's display and by a staff board that calls while it cannot
 * reach the platform. Both are made on the device itself (Web Audio, the system's voices), so they
 * work offline. ES2019 at most: old TV browsers run it as written.
 */
(function () {
  'use strict';

  /** Ding-dong: E5 then C5, each decaying like a bell; 0.6 s. */
  function chime(audio) {
    var now = audio.currentTime + 0.02;
    [659.25, 523.25].forEach(function (frequency, i) {
      var start = now + i * 0.24;
      var envelope = audio.createGain();
      var gain = envelope.gain;
      var tone = audio.createOscillator();
      gain.setValueAtTime(0.0001, start);
      gain.exponentialRampToValueAtTime(0.5, start + 0.015);
      gain.exponentialRampToValueAtTime(0.0001, start + 0.36);
      envelope.connect(audio.destination);
      tone.frequency.value = frequency;
      tone.connect(envelope);
      tone.start(start);
      tone.stop(start + 0.38);
    });
  }

  /** A voice for `lang`, one on the device (it works offline) preferred; null when there is none. */
  function voiceFor(lang) {
    var speech = window.speechSynthesis;
    var best = null;
    if (!speech) return null;
    speech.getVoices().forEach(function (voice) {
      if (String(voice.lang).toLowerCase().indexOf(lang) !== 0) return;
      if (!best || voice.localService) best = voice;
    });
    return best;
  }

  window.callOut = { chime: chime, voiceFor: voiceFor };
})();
