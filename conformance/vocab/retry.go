package vocab

import "net/http"

// Retryable says whether a status is worth another attempt: the statuses
// the official clients retry without their caller seeing them (openai-go,
// anthropic-sdk-go and their Node and Python siblings: 408, 409 and every
// 5xx, 529 "overloaded" among them; 429 they wait on). A gateway's passing
// hiccup is then no verdict, for the run that retries and for the judge of
// a client that did.
func Retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500
}
