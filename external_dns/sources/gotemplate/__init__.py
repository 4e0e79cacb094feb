"""Go's text/template for --fqdn-template, --target-template and --fqdn-target-template: lexer, parser
(everything is checked before it runs, named templates included), functions, and a bounded executor over
JSON data.
It never evaluates Python: templates read dict keys and list items and call the listed functions only."""
