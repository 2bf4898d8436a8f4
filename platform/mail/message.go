package mail

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Header is one extra header line of a message, e.g. X-Vigil-Event.
type Header struct{ Name, Value string }

// Text is a plain-text message from from to to: the headers (the
// subject's line breaks flattened), then body with CRLF line ends. The
// DATA writer dot-stuffs lines itself.
func Text(from, to, subject, body string, now time.Time, extra ...Header) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@vigil>\r\n", from, to,
		strings.NewReplacer("\r", " ", "\n", " ").Replace(subject), now.Format(time.RFC1123Z), uuid.NewString())
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n")
	for _, h := range extra {
		fmt.Fprintf(&b, "%s: %s\r\n", h.Name, h.Value)
	}
	b.WriteString("\r\n")
	for _, line := range strings.Split(body, "\n") {
		b.WriteString(line + "\r\n")
	}
	return []byte(b.String())
}

// WithAttachment is a message from from to to with a plain-text body and
// one attached file (base64, lines of 76 characters).
func WithAttachment(from, to, subject, body, filename, contentType string, data []byte, now time.Time) []byte {
	boundary := "vigil-" + uuid.NewString()
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@vigil>\r\n", from, to,
		strings.NewReplacer("\r", " ", "\n", " ").Replace(subject), now.Format(time.RFC1123Z), uuid.NewString())
	fmt.Fprintf(&b, "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=%q\r\n\r\n", boundary)
	fmt.Fprintf(&b, "--%s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n", boundary)
	for _, line := range strings.Split(body, "\n") {
		b.WriteString(line + "\r\n")
	}
	name := strings.NewReplacer(`"`, "", "\r", "", "\n", "").Replace(filename)
	fmt.Fprintf(&b, "--%s\r\nContent-Type: %s\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=%q\r\n\r\n",
		boundary, contentType, name)
	enc := base64.StdEncoding.EncodeToString(data)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n--" + boundary + "--\r\n")
	return []byte(b.String())
}
