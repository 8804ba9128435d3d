// Package redact keeps secrets out of everything the suite writes. It is the
// one place that knows what a secret looks like in text and the one marker
// that replaces it, so a text redacted twice (by the runner, then by the
// report) comes out the same.
package redact

import (
	"regexp"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
)

// Marker replaces a secret.
const Marker = "[REDACTED]"

// MinSecretLen is the shortest key or secret header value the suite accepts.
// Redaction replaces exact values: a one-letter key would be replaced inside
// every word of every output ("ma[REDACTED]_tokens").
const MinSecretLen = 8

// SecretHeader reports whether a header's name says its value is a secret,
// whatever the value looks like: the credential headers (Authorization,
// Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key, Api-Key, X-Auth-*)
// and names ending in -Token, -Secret, -Key, -Password, -Signature or
// -Credential(s). A name that merely holds such a word, such as a relay's
// X-Portkey-Provider, is not: its value is the diagnostic an operator needs;
// neither are the CORS headers (Access-Control-Allow-Credentials).
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key":
		return true
	}
	if strings.HasPrefix(n, "access-control-") {
		return false // CORS: Access-Control-Allow-Credentials: true is a flag
	}
	if strings.HasPrefix(n, "x-auth-") {
		return true
	}
	for _, suffix := range []string{"-token", "-secret", "-key", "-password", "-signature", "-credential", "-credentials"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// Secrets replaces every exact secret value in s. A value cut short by
// results.Truncate leaves its first bytes before the truncation mark: those
// are replaced too, down to 4 bytes.
func Secrets(s string, secrets []string) string {
	for _, k := range secrets {
		if k == "" {
			continue
		}
		s = strings.ReplaceAll(s, k, Marker)
		for n := len(k) - 1; n >= 4 && strings.Contains(s, results.TruncationMark); n-- {
			s = strings.ReplaceAll(s, k[:n]+results.TruncationMark, Marker+results.TruncationMark)
		}
	}
	return s
}

// Result replaces every exact secret value in the text of a result: a
// gateway may echo the key it rejected in its error message.
func Result(res *results.Result, secrets []string) {
	if len(secrets) == 0 {
		return
	}
	Walk(res, func(s string) string { return Secrets(s, secrets) })
}

// Credential patterns, for text whose secrets the caller cannot name: a
// published report redacts by pattern as defence in depth, in case a gateway
// echoes a credential the runner never knew (another header, a token of its
// own) or a runner bug lets one through.
var (
	// key=value, "api_key": "value", x-api-key: value, authorization: value;
	// an auth scheme word is kept: "Authorization: Bearer [REDACTED]".
	namedSecretRE = regexp.MustCompile(`(?i)\b(x-api-key|api[_-]?key|access[_-]?token|authorization|token)(["']?\s*[:=]\s*["']?)((?:bearer|basic)\s+)?([^\s"'&,;}\]]{4,})`)
	// "Bearer <token>" anywhere (headers echoed in bodies or messages).
	bearerRE = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=\-]{4,})`)
	// A placeholder in the spec's words, <API_KEY>, with the punctuation
	// after it: letters and underscores only, where a key has digits. A
	// JSON body may escape its brackets (\u003cAPI_KEY\u003e, as Go's
	// encoder writes them).
	placeholderRE = regexp.MustCompile(`^(?:<|\\u003[cC])[A-Za-z_]+(?:>|\\u003[eE])[^A-Za-z0-9]*$`)
	// Provider-style secret keys: sk-..., sk_live_... (long enough to not be a word).
	skRE = regexp.MustCompile(`\b(sk[-_])([A-Za-z0-9_\-]{12,})`)
)

// Credentials replaces anything in s that looks like a credential. It is
// idempotent: a Marker already in place stays as it is.
func Credentials(s string) string {
	s = namedSecretRE.ReplaceAllStringFunc(s, func(m string) string {
		p := namedSecretRE.FindStringSubmatch(m)
		val := p[4]
		if strings.HasPrefix(Marker, val) {
			return m // the pattern stops at ']': an earlier Marker, cut
		}
		if strings.HasPrefix(val, "$") {
			return m // a variable's name (${GWCONFORM_IMAGE_KEY}), no secret: a reproduction needs it whole
		}
		if placeholderRE.MatchString(val) {
			return m // the spec's own words (Bearer <API_KEY>), no secret: a finding quotes them
		}
		if p[3] == "" && (strings.EqualFold(val, "bearer") || strings.EqualFold(val, "basic")) {
			return m // a scheme alone, its token is handled by bearerRE
		}
		return p[1] + p[2] + p[3] + Marker
	})
	s = bearerRE.ReplaceAllStringFunc(s, func(m string) string {
		p := bearerRE.FindStringSubmatch(m)
		return p[1] + p[2] + Marker
	})
	return skRE.ReplaceAllString(s, "${1}"+Marker)
}
