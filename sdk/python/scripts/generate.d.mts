export declare const specUrl: URL
export declare const outputUrl: URL
export declare const render: () => Promise<string>
