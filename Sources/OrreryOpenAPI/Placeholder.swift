import OpenAPIKit
