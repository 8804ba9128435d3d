// Package conformancetest wires the engine to the reference gateway: the two
// sides import nothing of each other (the judged shares no code with the
// judge), so the places that need both — the CLI and the tests — meet here.
//
// Start runs the gateway on a loopback port, with a local HTTPS server
// holding a fixture image that the gateway trusts. It is how `gwconform run`
// and `go test ./conformance/` work with no key at all: the URL-reference
// case (spec 4.5, "a public HTTPS URL of a PNG") then runs offline too.
package conformancetest

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/refgateway"
)

// PublicImagePath is where the local HTTPS server serves its PNG.
const PublicImagePath = "/ref-a-1024.png"

// Server is a running reference gateway.
type Server struct {
	BaseURL string
	// PublicImageURL is an HTTPS URL of a PNG that the gateway can fetch.
	PublicImageURL string
	Keys           refgateway.Keys
	Gateway        *refgateway.Gateway

	http  *httptest.Server
	image *httptest.Server
}

// Start runs the gateway on 127.0.0.1 with a free port (httptest listens on
// loopback only). image is the PNG
// served at PublicImageURL (fixtures hold one). cfg.HTTPClient is replaced by
// a client that trusts the local HTTPS server.
func Start(cfg refgateway.Config, fixtures fs.FS) (*Server, error) {
	png, err := fs.ReadFile(fixtures, PublicImagePath[1:])
	if err != nil {
		return nil, fmt.Errorf("public image fixture: %w", err)
	}
	img := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != PublicImagePath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	}))
	cfg.HTTPClient = img.Client()
	if cfg.Keys == (refgateway.Keys{}) {
		cfg.Keys = refgateway.DefaultKeys()
	}
	gw, err := refgateway.New(cfg)
	if err != nil {
		img.Close()
		return nil, err
	}
	srv := httptest.NewServer(gw)
	return &Server{
		BaseURL:        srv.URL,
		PublicImageURL: img.URL + PublicImagePath,
		Keys:           cfg.Keys,
		Gateway:        gw,
		http:           srv,
		image:          img,
	}, nil
}

// keyFields pairs each engine key kind with the gateway's field for it. The
// two spell their kinds apart; TestKeyKindsAgree holds them together.
func keyFields(k *refgateway.Keys) map[catalog.KeyKind]*string {
	return map[catalog.KeyKind]*string{
		catalog.KeyText: &k.Text, catalog.KeyMessages: &k.Messages,
		catalog.KeyImage: &k.Image, catalog.KeyAlt: &k.Alt,
	}
}

// GatewayKeys returns keys for the gateway: the given ones by kind, the
// documented defaults for the others.
func GatewayKeys(keys map[catalog.KeyKind]string) refgateway.Keys {
	out := refgateway.DefaultKeys()
	for kind, field := range keyFields(&out) {
		if keys[kind] != "" {
			*field = keys[kind]
		}
	}
	return out
}

// KeyMap returns the gateway's keys by capability, as the engine takes them.
func (s *Server) KeyMap() map[catalog.KeyKind]string {
	out := map[catalog.KeyKind]string{}
	for kind, field := range keyFields(&s.Keys) {
		out[kind] = *field
	}
	return out
}

// Close stops both servers.
func (s *Server) Close() {
	s.http.Close()
	s.image.Close()
}
