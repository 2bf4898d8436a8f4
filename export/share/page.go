package share

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// The recipient's page at the share link (/share/{share_slug}, the
// share_url a share answers with): the same bytes for every slug, so it
// reveals nothing, not even whether the link is valid. Its script asks
// for a passcode, verifies it and downloads the report with the token,
// through the public API under /api/v1/share/{share_slug}.

const pageStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2937}
h1{font-size:1.4rem}button{font:inherit;padding:.5rem 1rem;margin:.25rem 0;cursor:pointer}
input{font:inherit;padding:.45rem;width:10ch;letter-spacing:.2em}#status{min-height:1.5em;color:#374151}
.step[hidden]{display:none}`

const pageScript = `(function(){
var slug=decodeURIComponent(location.pathname.replace(/\/+$/,"").split("/").pop());
var api="/api/v1/share/"+encodeURIComponent(slug);
var status=document.getElementById("status");
document.body.setAttribute("data-ready","1");
function say(t){status.textContent=t;}
function failed(r){return r.json().then(function(b){say((b.error&&b.error.message)||("failed: "+r.status));},function(){say("failed: "+r.status);});}
document.getElementById("ask").addEventListener("click",function(){
 fetch(api+"/passcode",{method:"POST"}).then(function(r){
  if(r.status!==202){return failed(r);}
  say("If this link is valid, a passcode is on its way to the address it was shared with.");
  document.getElementById("verify").hidden=false;});});
document.getElementById("send").addEventListener("click",function(){
 var code=document.getElementById("code").value.trim();
 fetch(api+"/verify",{method:"POST",headers:{"Content-Type":"application/json"},body:JSON.stringify({passcode:code})}).then(function(r){
  if(!r.ok){return failed(r);}
  return r.json().then(function(t){
   say("Downloading the report...");
   var h={};h[t.token_header]=t.download_token;
   return fetch(t.download_url,{headers:h}).then(function(d){
    if(!d.ok){return failed(d);}
    var name=((d.headers.get("Content-Disposition")||"").match(/filename="?([^";]+)"?/)||[])[1]||"report";
    return d.blob().then(function(b){var a=document.createElement("a");a.href=URL.createObjectURL(b);a.download=name;
     document.body.appendChild(a);a.click();a.remove();say("Downloaded "+name+". The passcode cannot be used again.");});});});});});
})();`

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>A shared report</title><style>{{.Style}}</style></head>
<body><h1>A report was shared with you</h1>
<p>To open it, ask for a one-time passcode. It is sent to the e-mail address the report was shared with and is good for 10 minutes.</p>
<div class="step"><button id="ask" type="button">Send me a passcode</button></div>
<div class="step" id="verify" hidden><label for="code">Passcode</label>
<input id="code" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
<button id="send" type="button">Open the report</button></div>
<p id="status" role="status"></p>
<script>{{.Script}}</script></body></html>
`))

// page is the rendered page and the Content-Security-Policy that lets
// only its own inline style and script run and reach only this server.
var page, pagePolicy = renderPage()

func renderPage() ([]byte, string) {
	var b strings.Builder
	if err := pageTemplate.Execute(&b, struct {
		Style  template.CSS
		Script template.JS
	}{template.CSS(pageStyle), template.JS(pageScript)}); err != nil {
		panic(err)
	}
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	policy := "default-src 'none'; script-src " + hash(pageScript) + "; style-src " + hash(pageStyle) +
		"; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return []byte(b.String()), policy
}

// Page answers GET /share/{share_slug} (outside /api/v1: the link a
// share hands out) with the recipient's page, the same for every slug.
func (a *API) Page(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentSecurityPolicy, pagePolicy)
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(page)
}
