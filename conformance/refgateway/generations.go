package refgateway

import (
	"fmt"
	"mime"
	"net/http"
)

// generations answers POST /v1/images/generations (4.4): a JSON body,
// answered with the image result of 2.2 or, with stream true, the image
// stream of 6.1 (image_generation.* events).
func (c *call) generations() {
	ct, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if ct != "" && ct != "application/json" {
		c.fail(http.StatusBadRequest, fmt.Sprintf("unsupported Content-Type %q: image generation takes application/json", ct))
		return
	}
	var req imageRequest
	if !c.readJSON(&req) {
		return
	}
	c.runImages(&req, nil, false)
}
