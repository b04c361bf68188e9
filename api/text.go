package api

import (
	"bytes"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
)

// textOnly refuses a request whose path or query holds text that is not
// UTF-8, or a NUL character: no id, code, cursor or name of ours has one,
// and PostgreSQL would answer a query holding it with an error of its own.
// Bodies are checked where they are read (decodeBody, scoring.CheckText),
// each problem at its JSON Pointer; a query parameter has none, so the
// detail names it.
func textOnly(c *fiber.Ctx) error {
	if !utf8.ValidString(c.Path()) {
		return errorf(fiber.StatusBadRequest, "the path is not valid UTF-8 text")
	}
	var bad []byte
	c.Context().QueryArgs().VisitAll(func(key, value []byte) {
		if bad == nil && (!plainText(key) || !plainText(value)) {
			bad = append([]byte{}, key...)
		}
	})
	if bad != nil {
		return errorf(fiber.StatusBadRequest, "the query parameter %q holds text that is not UTF-8 or a NUL character", bad)
	}
	return c.Next()
}

func plainText(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}
