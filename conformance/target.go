package conformance

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/redact"
)

// Target is the gateway under test and the keys to reach it with.
type Target struct {
	BaseURL string
	// Keys maps each capability to its bearer key. A missing key makes the
	// cases that need it skip.
	Keys map[catalog.KeyKind]string
	// Rejected holds the key kinds the gateway refused in the preflight,
	// with what it answered; their cases are skipped as "key rejected".
	Rejected map[catalog.KeyKind]string
	// PublicImageURL is an HTTPS PNG the gateway can fetch (URL-reference case).
	PublicImageURL string
	// Client sends the requests; nil means a client with no overall timeout
	// (Options.Timeout bounds each request instead).
	Client *http.Client
}

// KeyVariables names the environment variable of each key kind (DESIGN.md).
var KeyVariables = map[catalog.KeyKind]string{
	catalog.KeyText:     "GWCONFORM_TEXT_KEY",
	catalog.KeyMessages: "GWCONFORM_MESSAGES_KEY",
	catalog.KeyImage:    "GWCONFORM_IMAGE_KEY",
	catalog.KeyAlt:      "GWCONFORM_ALT_KEY",
}

// TargetFromEnv reads GWCONFORM_BASE_URL, the four key variables and
// GWCONFORM_PUBLIC_IMAGE_URL. BaseURL is empty when the variable is unset.
func TargetFromEnv() Target {
	t := Target{
		BaseURL:        strings.TrimRight(os.Getenv("GWCONFORM_BASE_URL"), "/"),
		Keys:           map[catalog.KeyKind]string{},
		PublicImageURL: os.Getenv("GWCONFORM_PUBLIC_IMAGE_URL"),
	}
	for kind, name := range KeyVariables {
		if v := os.Getenv(name); v != "" {
			t.Keys[kind] = v
		}
	}
	return t
}

// Secrets returns every key value, for redaction.
func (t Target) Secrets() []string {
	var out []string
	for _, k := range t.Keys {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Validate refuses keys that redaction cannot keep out of the outputs:
// redaction replaces exact values, and a short key ("x") would be replaced
// inside every word of every report.
func (t Target) Validate() error {
	for _, kind := range catalog.KeyKinds {
		if k := t.Keys[kind]; k != "" && len(k) < redact.MinSecretLen {
			return fmt.Errorf("the %s key is %d characters long; keys shorter than %d are refused, because redacting so short a value would mangle every output", kind, len(k), redact.MinSecretLen)
		}
	}
	return nil
}
