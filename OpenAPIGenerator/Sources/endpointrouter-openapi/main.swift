import EndpointRouterOpenAPI
import Foundation

// Arguments are parsed by hand: one command with three options does not justify building
// swift-argument-parser in every CI run.
let usage = """
    usage: endpointrouter-openapi generate <document> --output <dir> [--service <Name>] [--access public|internal]
                                           [--no-doc-comments] [--no-validation]

    Writes an EndpointRouter service enum, its typed calls and Codable models for an OpenAPI 3.0/3.1
    document (YAML or JSON) into <dir>. Warnings, each naming a JSON pointer, go to standard error;
    they include what OpenAPIKit's validation finds (--no-validation skips it; the output is the same).
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
guard arguments.first == "generate" else { fail("expected the 'generate' command\n\(usage)") }
arguments.removeFirst()
var documentPath: String?
var output: String?
var options = GeneratorOptions()
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fail("\(argument) needs a value\n\(usage)") }
        return arguments.removeFirst()
    }
    switch argument {
    case "--output", "-o": output = value()
    case "--service": options.service = value()
    case "--access":
        let level = value()
        guard let access = GeneratorOptions.Access(rawValue: level) else { fail("--access must be public or internal, not '\(level)'") }
        options.access = access
    case "--no-doc-comments": options.includeDocumentation = false
    case "--no-validation": options.validate = false
    default:
        if argument.hasPrefix("-") || documentPath != nil { fail("unexpected argument '\(argument)'\n\(usage)") }
        documentPath = argument
    }
}
guard let documentPath else { fail("no document given\n\(usage)") }
guard let output else { fail("no --output directory given\n\(usage)") }
let text: String
do {
    text = try String(contentsOfFile: documentPath, encoding: .utf8)
} catch {
    fail("cannot read '\(documentPath)': \(error.localizedDescription)")
}
let result: GenerationResult
do {
    result = try OpenAPIGenerator.generate(text, options: options)
} catch {
    fail("cannot generate from '\(documentPath)': \(error.description)")
}
for warning in result.warnings {
    FileHandle.standardError.write(Data("\(warning)\n".utf8))
}
let directory = URL(fileURLWithPath: output, isDirectory: true)
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for file in result.files {
        try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.name), options: .atomic)
    }
} catch {
    fail("cannot write into '\(output)': \(error.localizedDescription)")
}
let lines = result.files.reduce(0) { $0 + $1.contents.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } }
FileHandle.standardError.write(
    Data("generated \(result.files.count) files, \(lines) lines, into \(output) (\(result.warnings.count) warnings)\n".utf8))
