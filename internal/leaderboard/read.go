package leaderboard

// MaxDeclarationBytes caps a runs.yaml read from a checkout (with
// diskio.ReadPathMax, regular files only): real declarations are a few KiB,
// and Decode holds every node of the document in memory.
const MaxDeclarationBytes = 1 << 20
