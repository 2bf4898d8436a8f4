package report

import (
	"html/template"
	"io"
	"regexp"

	"github.com/vigilhq/vigil/report/chart"
)

// colour is a "#rrggbb" colour, the only form branding may take.
var colour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// defaultPrimary colours reports without branding.
const defaultPrimary = "#2563eb"

// htmlPage is the self-contained page: styles inline, charts inline SVG,
// nothing loaded from anywhere.
var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"svg": func(c chart.Chart, primary template.CSS) template.HTML {
		return template.HTML(chart.SVG(c, string(primary)))
	}, // chart.SVG escapes every text it draws
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{{.R.Title}}</title>
<style>
body{font-family:sans-serif;color:#111827;margin:2rem auto;max-width:60rem;padding:0 1rem}
header{border-top:8px solid {{.Primary}};padding-top:.5rem}
.logo{float:right;max-height:3rem;max-width:12rem}
h1{color:{{.Primary}};border-bottom:3px solid {{.Primary}};padding-bottom:.3rem}
h2{color:{{.Primary}};margin-top:2rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{border:1px solid #d1d5db;padding:.25rem .5rem;text-align:left}
th{background:#f3f4f6}
.meta{color:#4b5563}
.empty{color:#6b7280;font-style:italic}
dl{display:grid;grid-template-columns:max-content auto;gap:.25rem 1rem}
dt{font-weight:bold}
</style></head>
<body>
<header>{{with .Logo}}<img class="logo" src="{{.}}" alt="logo">{{end}}<h1>{{.R.Title}}</h1></header>
<p class="meta">{{.R.Category}} · {{.R.From}} to {{.R.To}} · generated {{.R.GeneratedAt.Format "2006-01-02T15:04:05Z07:00"}}<br>
{{range $i, $m := .R.Models}}{{if $i}}, {{end}}{{$m.Name}}{{end}}</p>
{{range .R.Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{if .Empty}}<p class="empty">Empty: {{.Note}}</p>
{{else}}{{if .Note}}<p class="meta">{{.Note}}</p>{{end}}
{{if .Figures}}<dl>{{range .Figures}}<dt>{{.Label}}</dt><dd>{{.Value}}</dd>{{end}}</dl>{{end}}
{{if .Lines}}<ul>{{range .Lines}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Chart}}<figure>{{svg . $.Primary}}</figure>{{end}}
{{with .Table}}<table><thead><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody></table>{{end}}
{{end}}</section>
{{end}}</body></html>
`))

// writeHTML writes r as one self-contained HTML page in the brand's
// colour, with the logo inline as a data: URI (an SVG logo in an img
// element runs no script, and was sanitised when stored).
func writeHTML(w io.Writer, r Report) error {
	return htmlPage.Execute(w, struct {
		R       Report
		Primary template.CSS
		Logo    template.URL
	}{r, template.CSS(brandColour(r.Brand)), template.URL(r.Brand.dataURI())})
}

// seriesNames are the names of a chart's series.
func seriesNames(ss []chart.Series) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}
