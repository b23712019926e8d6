// Loaded by Babylon.js's MeshoptCompression in place of its CDN's meshopt_decoder.js:
// babylon-target.js has already set window.MeshoptDecoder (three.js's copy).
