package scoring

// unmarshalOnePass is the one-pass decoder of onepass.go, which the
// browser's engine goes without to stay small: every body takes
// encoding/json's way, which gives the same answers.
func unmarshalOnePass([]byte, any) bool { return false }

// readScoreRequest is the hand-written reader of onepass.go, which the
// browser's engine goes without too.
func readScoreRequest([]byte, *Request) bool { return false }
