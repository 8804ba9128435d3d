package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
)

// preflightTimeout bounds each preflight call: it is one model list, and a
// gateway that cannot list within 10 s is better reported at once than
// found out 400 calls later.
const preflightTimeout = 10 * time.Second

// Preflight sends one GET /v1/models per configured key (or one without a
// key when none is configured) before a run, outside the plan and the call
// budget. It returns an error when the gateway cannot be reached at all or
// its certificate is not trusted — the run cannot start — and otherwise the
// key kinds the gateway refused (401 or 403), with what it answered, so
// their cases are skipped as "key rejected" rather than failed one by one.
func Preflight(ctx context.Context, t Target) (map[catalog.KeyKind]string, error) {
	rejected := map[catalog.KeyKind]string{}
	var kinds []catalog.KeyKind
	for _, k := range catalog.KeyKinds {
		if t.Keys[k] != "" {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		kinds = []catalog.KeyKind{""} // reachability only
	}
	for _, kind := range kinds {
		status, err := preflightCall(ctx, t, kind)
		if err != nil {
			return nil, err
		}
		if status == http.StatusUnauthorized || status == http.StatusForbidden {
			rejected[kind] = fmt.Sprintf("GET /v1/models with the %s key answered %d", kind, status)
		}
	}
	return rejected, nil
}

func preflightCall(ctx context.Context, t Target, kind catalog.KeyKind) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	resp, err := t.getModels(ctx, kind)
	if err != nil {
		return 0, unreachable(t.BaseURL, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// unreachable explains why no answer came, naming a certificate problem as
// such: "not trusted" is a setup step (--ca-cert), not a network fault.
func unreachable(base string, err error) error {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknownCA):
		return fmt.Errorf("%s: the gateway's certificate is signed by an authority this machine does not trust (give it with --ca-cert FILE): %w", base, err)
	case errors.As(err, &hostname):
		return fmt.Errorf("%s: the gateway's certificate is not valid for this host name: %w", base, err)
	case errors.As(err, &invalid):
		return fmt.Errorf("%s: the gateway's certificate is invalid (%s): %w", base, invalid.Detail, err)
	case errors.As(err, &verify):
		return fmt.Errorf("%s: the gateway's certificate could not be verified: %w", base, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: no answer to GET /v1/models within %s", base, preflightTimeout)
	}
	return fmt.Errorf("%s: cannot reach the gateway: %w", base, err)
}
